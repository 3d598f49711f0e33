build-clang/obj/db/query.o: db/query.c db/query.h db/db.h \
  src/base/error.h db/fitcache.h src/base/util.h

db/query.h:

db/db.h:

src/base/error.h:

db/fitcache.h:

src/base/util.h:
