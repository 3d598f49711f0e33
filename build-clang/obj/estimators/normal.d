build-clang/obj/estimators/normal.o: estimators/normal.c \
  estimators/model.h

estimators/model.h:
