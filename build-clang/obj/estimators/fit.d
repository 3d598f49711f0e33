build-clang/obj/estimators/fit.o: estimators/fit.c estimators/fit.h \
  estimators/model.h src/base/error.h src/base/util.h

estimators/fit.h:

estimators/model.h:

src/base/error.h:

src/base/util.h:
