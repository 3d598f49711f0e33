build-clang/obj/collectors/http.o: collectors/http.c collectors/http.h \
  src/base/error.h src/base/util.h

collectors/http.h:

src/base/error.h:

src/base/util.h:
