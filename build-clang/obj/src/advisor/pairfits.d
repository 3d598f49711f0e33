build-clang/obj/src/advisor/pairfits.o: src/advisor/pairfits.c \
  src/advisor/pairfits.h src/base/error.h db/db.h estimators/fit.h \
  estimators/model.h src/base/prefault.h src/base/util.h db/fitcache.h \
  db/query.h

src/advisor/pairfits.h:

src/base/error.h:

db/db.h:

estimators/fit.h:

estimators/model.h:

src/base/prefault.h:

src/base/util.h:

db/fitcache.h:

db/query.h:
