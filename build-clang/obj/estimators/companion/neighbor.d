build-clang/obj/estimators/companion/neighbor.o: \
  estimators/companion/neighbor.c estimators/companion/neighbor.h

estimators/companion/neighbor.h:
