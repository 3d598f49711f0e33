build-clang/obj/src/cli/cmd_inspect.o: src/cli/cmd_inspect.c \
  src/cli/cli.h src/base/config.h src/base/error.h db/db.h \
  src/base/util.h db/query.h collectors/csvread.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

db/query.h:

collectors/csvread.h:
