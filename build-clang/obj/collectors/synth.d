build-clang/obj/collectors/synth.o: collectors/synth.c collectors/synth.h \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h collectors/csvread.h

collectors/synth.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

collectors/csvread.h:
