build-clang/obj/collectors/jsonin.o: collectors/jsonin.c \
  collectors/jsonin.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h

collectors/jsonin.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:
