build-clang/obj/src/cli/main.o: src/cli/main.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:
