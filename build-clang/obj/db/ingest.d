build-clang/obj/db/ingest.o: db/ingest.c db/ingest.h db/db.h \
  src/base/error.h db/store.h collectors/collector.h collectors/http.h \
  src/base/util.h

db/ingest.h:

db/db.h:

src/base/error.h:

db/store.h:

collectors/collector.h:

collectors/http.h:

src/base/util.h:
