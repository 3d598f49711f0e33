build-clang/obj/src/cli/cmd_serve.o: src/cli/cmd_serve.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h \
  src/server/server.h estimators/companion/topology.h \
  estimators/companion/flowsim.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

src/server/server.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:
