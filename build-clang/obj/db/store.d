build-clang/obj/db/store.o: db/store.c db/store.h db/db.h \
  src/base/error.h db/fitcache.h

db/store.h:

db/db.h:

src/base/error.h:

db/fitcache.h:
