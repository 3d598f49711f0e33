build-clang/obj/src/server/server.o: src/server/server.c \
  src/server/server.h src/base/config.h src/base/error.h \
  estimators/companion/topology.h estimators/companion/flowsim.h \
  src/advisor/advice.h src/advisor/advisor.h db/db.h estimators/emax.h \
  estimators/model.h estimators/fit.h estimators/companion/loggps.h \
  src/base/util.h src/base/version.h

src/server/server.h:

src/base/config.h:

src/base/error.h:

estimators/companion/topology.h:

estimators/companion/flowsim.h:

src/advisor/advice.h:

src/advisor/advisor.h:

db/db.h:

estimators/emax.h:

estimators/model.h:

estimators/fit.h:

estimators/companion/loggps.h:

src/base/util.h:

src/base/version.h:
