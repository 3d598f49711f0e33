build-clang/obj/estimators/lcsum.o: estimators/lcsum.c estimators/lcsum.h \
  estimators/emax.h estimators/model.h src/base/error.h

estimators/lcsum.h:

estimators/emax.h:

estimators/model.h:

src/base/error.h:
