build-clang/obj/estimators/sliding.o: estimators/sliding.c \
  estimators/sliding.h estimators/fit.h estimators/model.h \
  src/base/error.h

estimators/sliding.h:

estimators/fit.h:

estimators/model.h:

src/base/error.h:
