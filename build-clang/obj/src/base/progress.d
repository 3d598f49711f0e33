build-clang/obj/src/base/progress.o: src/base/progress.c \
  src/base/progress.h src/base/util.h

src/base/progress.h:

src/base/util.h:
