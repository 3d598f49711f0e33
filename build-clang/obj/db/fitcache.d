build-clang/obj/db/fitcache.o: db/fitcache.c db/fitcache.h db/db.h \
  src/base/error.h

db/fitcache.h:

db/db.h:

src/base/error.h:
