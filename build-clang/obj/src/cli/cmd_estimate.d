build-clang/obj/src/cli/cmd_estimate.o: src/cli/cmd_estimate.c \
  src/cli/cli.h src/base/config.h src/base/error.h db/db.h \
  src/base/util.h db/query.h estimators/emax.h estimators/model.h \
  estimators/fit.h estimators/sliding.h

src/cli/cli.h:

src/base/config.h:

src/base/error.h:

db/db.h:

src/base/util.h:

db/query.h:

estimators/emax.h:

estimators/model.h:

estimators/fit.h:

estimators/sliding.h:
