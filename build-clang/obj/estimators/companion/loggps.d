build-clang/obj/estimators/companion/loggps.o: \
  estimators/companion/loggps.c estimators/companion/loggps.h \
  src/base/error.h src/base/util.h

estimators/companion/loggps.h:

src/base/error.h:

src/base/util.h:
