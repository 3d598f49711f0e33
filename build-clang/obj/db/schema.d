build-clang/obj/db/schema.o: db/schema.c db/schema.h

db/schema.h:
