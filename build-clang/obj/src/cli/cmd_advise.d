build-clang/obj/src/cli/cmd_advise.o: src/cli/cmd_advise.c \
  src/advisor/advice.h src/advisor/advisor.h src/base/error.h db/db.h \
  estimators/emax.h estimators/model.h estimators/fit.h \
  estimators/companion/loggps.h estimators/companion/topology.h \
  estimators/companion/flowsim.h src/base/config.h \
  src/advisor/pairfits.h src/cli/cli.h src/base/util.h

src/advisor/advice.h:

src/advisor/advisor.h:

src/base/error.h:

db/db.h:

estimators/emax.h:

estimators/model.h:

estimators/fit.h:

estimators/companion/loggps.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:

src/base/config.h:

src/advisor/pairfits.h:

src/cli/cli.h:

src/base/util.h:
