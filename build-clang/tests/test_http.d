build-clang/tests/test_http: tests/unit/test_http.c tests/unit/testutil.h \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h db/db.h db/ingest.h db/store.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:
