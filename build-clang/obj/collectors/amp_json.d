build-clang/obj/collectors/amp_json.o: collectors/amp_json.c \
  collectors/jsonin.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h

collectors/jsonin.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:
