build-clang/tests/test_db: tests/unit/test_db.c tests/unit/testutil.h \
  collectors/collector.h src/base/error.h collectors/http.h \
  src/base/util.h db/db.h db/ingest.h db/store.h db/query.h

tests/unit/testutil.h:

collectors/collector.h:

src/base/error.h:

collectors/http.h:

src/base/util.h:

db/db.h:

db/ingest.h:

db/store.h:

db/query.h:
