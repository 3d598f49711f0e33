build-clang/obj/collectors/csvformat.o: collectors/csvformat.c \
  collectors/csvformat.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h collectors/csvread.h

collectors/csvformat.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

collectors/csvread.h:
