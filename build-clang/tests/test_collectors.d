build-clang/tests/test_collectors: tests/unit/test_collectors.c \
  tests/unit/testutil.h collectors/collector.h src/base/error.h \
  collectors/http.h src/base/util.h db/db.h db/ingest.h db/store.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:
