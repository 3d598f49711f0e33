build-clang/obj/collectors/csv.o: collectors/csv.c collectors/csvformat.h \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h

collectors/csvformat.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:
