build-clang/obj/collectors/probe.o: collectors/probe.c collectors/probe.h \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h

collectors/probe.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:
