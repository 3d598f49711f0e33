build-clang/obj/collectors/matrix.o: collectors/matrix.c \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:
