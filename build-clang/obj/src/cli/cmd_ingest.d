build-clang/obj/src/cli/cmd_ingest.o: src/cli/cmd_ingest.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h db/ingest.h \
  db/store.h collectors/collector.h collectors/http.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

db/ingest.h:

db/store.h:

collectors/collector.h:

collectors/http.h:
