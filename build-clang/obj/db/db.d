build-clang/obj/db/db.o: db/db.c db/db.h src/base/error.h db/schema.h

db/db.h:

src/base/error.h:

db/schema.h:
