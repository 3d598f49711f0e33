build-clang/obj/src/base/util.o: src/base/util.c src/base/util.h \
  src/base/error.h

src/base/util.h:

src/base/error.h:
