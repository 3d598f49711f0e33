build-clang/obj/src/cli/cli.o: src/cli/cli.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h \
  src/base/version.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

src/base/version.h:
