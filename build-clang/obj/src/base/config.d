build-clang/obj/src/base/config.o: src/base/config.c src/base/config.h \
  src/base/error.h src/base/util.h

src/base/config.h:

src/base/error.h:

src/base/util.h:
