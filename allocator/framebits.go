package allocator
