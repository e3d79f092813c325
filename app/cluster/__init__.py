"""Many servers ("nodes") on one PostgreSQL database, with Redis between them.

Each open room is owned by one node at a time: the node holds a lease on it in Redis and a fence
(the room's epoch) in the database, which refuses the writes of any owner but the latest. A dead
node's rooms are taken over from the log by the others; a stopping node hands its rooms over.
Any node serves any room: a node that does not own a room passes calls to its owner and relays
the owner's messages to the sockets it holds, over Redis pub/sub. docs/cluster.md has the design.
"""
