build-clang/obj/src/cli/cmd_synth.o: src/cli/cmd_synth.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h \
  src/base/progress.h collectors/synth.h collectors/collector.h \
  collectors/http.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

src/base/progress.h:

collectors/synth.h:

collectors/collector.h:

collectors/http.h:
