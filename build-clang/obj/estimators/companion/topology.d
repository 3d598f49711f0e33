build-clang/obj/estimators/companion/topology.o: \
  estimators/companion/topology.c estimators/companion/topology.h \
  estimators/companion/flowsim.h src/base/error.h src/base/util.h

estimators/companion/topology.h:

estimators/companion/flowsim.h:

src/base/error.h:

src/base/util.h:
