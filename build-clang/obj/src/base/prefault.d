build-clang/obj/src/base/prefault.o: src/base/prefault.c \
  src/base/prefault.h

src/base/prefault.h:
