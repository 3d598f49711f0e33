build-clang/obj/estimators/models.o: estimators/models.c \
  estimators/model.h

estimators/model.h:
