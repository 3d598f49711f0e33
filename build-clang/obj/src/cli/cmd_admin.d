build-clang/obj/src/cli/cmd_admin.o: src/cli/cmd_admin.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h db/query.h \
  collectors/collector.h collectors/http.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

db/query.h:

collectors/collector.h:

collectors/http.h:
