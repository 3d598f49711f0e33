build-clang/obj/estimators/delta.o: estimators/delta.c estimators/model.h

estimators/model.h:
