build-clang/obj/estimators/emax.o: estimators/emax.c estimators/emax.h \
  estimators/model.h src/base/error.h estimators/lcsum.h

estimators/emax.h:

estimators/model.h:

src/base/error.h:

estimators/lcsum.h:
