build-clang/obj/src/cli/cmd_models.o: src/cli/cmd_models.c src/cli/cli.h \
  src/base/config.h src/base/error.h db/db.h src/base/util.h \
  estimators/companion/extrap.h estimators/companion/loggps.h \
  estimators/companion/neighbor.h estimators/companion/topology.h \
  estimators/companion/flowsim.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

estimators/companion/extrap.h:

estimators/companion/loggps.h:

estimators/companion/neighbor.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:
