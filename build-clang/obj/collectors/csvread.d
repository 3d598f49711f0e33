build-clang/obj/collectors/csvread.o: collectors/csvread.c \
  collectors/csvread.h src/base/error.h

collectors/csvread.h:

src/base/error.h:
