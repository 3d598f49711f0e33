build-clang/obj/estimators/companion/extrap.o: \
  estimators/companion/extrap.c estimators/companion/extrap.h \
  src/base/error.h

estimators/companion/extrap.h:

src/base/error.h:
