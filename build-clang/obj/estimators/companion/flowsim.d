build-clang/obj/estimators/companion/flowsim.o: \
  estimators/companion/flowsim.c estimators/companion/flowsim.h \
  src/base/error.h

estimators/companion/flowsim.h:

src/base/error.h:
