build-clang/obj/src/advisor/advisor.o: src/advisor/advisor.c \
  src/advisor/advisor.h src/base/error.h db/db.h estimators/emax.h \
  estimators/model.h estimators/fit.h estimators/companion/loggps.h \
  estimators/companion/topology.h estimators/companion/flowsim.h \
  src/advisor/pairfits.h estimators/companion/extrap.h src/base/util.h \
  db/query.h

src/advisor/advisor.h:

src/base/error.h:

db/db.h:

estimators/emax.h:

estimators/model.h:

estimators/fit.h:

estimators/companion/loggps.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:

src/advisor/pairfits.h:

estimators/companion/extrap.h:

src/base/util.h:

db/query.h:
