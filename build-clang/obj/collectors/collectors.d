build-clang/obj/collectors/collectors.o: collectors/collectors.c \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:
