build-clang/obj/src/advisor/advice.o: src/advisor/advice.c \
  src/advisor/advice.h src/advisor/advisor.h src/base/error.h db/db.h \
  estimators/emax.h estimators/model.h estimators/fit.h \
  estimators/companion/loggps.h estimators/companion/topology.h \
  estimators/companion/flowsim.h src/base/config.h src/base/util.h \
  estimators/companion/extrap.h

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

src/base/util.h:

estimators/companion/extrap.h:
