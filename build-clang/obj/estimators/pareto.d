build-clang/obj/estimators/pareto.o: estimators/pareto.c \
  estimators/model.h

estimators/model.h:
