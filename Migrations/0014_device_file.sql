-- CatalogKit schema, version 14: a device database knows which file it is.
--
-- A device database copied to another device, or restored from a backup, holds the same client
-- ids as the one it came from: both would number new writes alike, and the server could take one
-- device's write for the other's (answered as applied, or found "settled" by the stream after a
-- server restore, while the other write is lost). `device_file` holds the file's device and inode
-- as the store last opened it; a store that opens another file (a copy) gives every followed
-- catalogue a new client id for the writes it makes from then on. Writes already waiting keep
-- their ids and numbers: the original device holds them too, and the server answers the second
-- device to send one as the one write it is.
CREATE TABLE device_file (
    device INTEGER NOT NULL,
    inode  INTEGER NOT NULL
);
