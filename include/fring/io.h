/* SPDX-License-Identifier: MIT */
/**
 * @file io.h
 * @brief Data helpers and asynchronous I/O on the queue's ring.
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_IO_H
#define FRING_API_IO_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/**
 * @name Data helpers
 * Do the I/O with the operation that suits the running transport (pread or
 * pwrite on dev; io_uring READ/WRITE on uring and bufpool; READ_FIXED /
 * WRITE_FIXED on the registered pool, or on the client's own pages on
 * zerocopy) and answer the request when it completes: short reads, EOF and
 * errors included. Callable from any thread; on zerocopy the transfer is
 * handed to the queue's thread (the pages live in its ring).
 *
 * On a ring transport, a transfer into or out of memory is done in place
 * by the queue thread when that cannot block: with RWF_NOWAIT (data in the
 * page cache of a filesystem that supports it), or plainly on tmpfs and
 * ramfs. Anything else, and anything above -o inline_max bytes, goes on
 * the ring, where a transfer that would block runs in an io_uring worker
 * and the queue thread goes on serving. Counted in the io_inline and
 * io_ring statistics. On zerocopy, a transfer of up to -o zc_pipe_max
 * bytes (64 KiB) on tmpfs or ramfs goes through a pipe of the queue
 * thread instead of an io_uring worker (zero_copy_piped).
 *
 * An I/O error is answered to the caller as its errno; the return value
 * says what became of the answer, as for the replies (see the Replies
 * group in reply.h): 0 when it went out, or when the transfer went on the
 * ring and the queue thread answers when it completes; -EALREADY if req
 * was answered already; -EIO when called for another opcode (a handler
 * bug: EIO answered, logged, counted in handler_bugs); another negative
 * errno if it could not be delivered. After the session started ending,
 * the zero-copy transfer answers ESHUTDOWN.
 */
/**@{*/
/** Answer a READ with up to size bytes of fd at off (size is capped to the
 * request's buffer). */
int fring_read_from_fd(fring_req_t *req, int fd, off_t off, size_t size);
/** Answer a WRITE by writing its data to fd at off; the answer is the
 * count written. */
int fring_write_to_fd(fring_req_t *req, int fd, off_t off);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name A WRITE's data, moved without answering
 * For a write handler that needs the data somewhere before it answers
 * (several files, a checksum, a log, a libfuse-style fuse_buf_copy()),
 * whatever kind of buffer `src` is. Synchronous: the call returns when
 * the bytes moved. Nothing is answered: the handler answers afterwards,
 * e.g. fring_reply_write() with the count it moved.
 *
 * data_off and len are a range of the WRITE's data (src->size bytes),
 * cut at its end. The operation suits the buffer:
 *
 * - FRING_BUF_MEM: pwrite (write(2) at off -1), or memcpy;
 * - FRING_BUF_PIPE (dev with -o splice_read): splice from the queue's
 *   pipe into fd (read(2) into dst). A pipe is read once, in order: each
 *   call must start where the previous one ended (data_off 0 first), and
 *   a range already taken cannot be had again (-ESPIPE). Once the handler
 *   returned without taking every byte, the rest is in memory (src turns
 *   FRING_BUF_MEM), still from where the taking stopped. A file that
 *   refuses splice (O_APPEND, no splice_write) gets the rest through
 *   memory the same way. Do not mix with fring_write_to_fd().
 * - FRING_BUF_FIXED (transport=zerocopy): a WRITE_FIXED from the client's
 *   pages on the queue's own ring, into fd, or into the ring's staging
 *   memfd and from there into dst. Waited for: on the queue thread the
 *   ring keeps serving completions meanwhile (they are handled once the
 *   handler returns); from another thread the operation is handed to the
 *   queue thread, which is woken for it (so that thread must not be
 *   waiting for the caller). The bytes count as moved from
 *   the pages, so fring_reply_write() may then claim them; each operation
 *   counts in the io_ring statistic. After the session started ending
 *   -ESHUTDOWN; called on another queue's thread -EDEADLK (its thread
 *   could be waiting for this one).
 *
 * Short counts are continued until the range is moved, the file takes no
 * more, or an error; an error after some bytes returns the bytes.
 * Returns the count, or a negative errno: -EINVAL (not a WRITE,
 * data_off past the data, off below -1), -EBADF (fd < 0), -EFAULT (dst
 * NULL), -EALREADY (req was answered), or the file's error.
 */
/**@{*/
/** Bytes [data_off, data_off + len) of a WRITE's data into fd at off
 * (off -1: at the descriptor's position, which then advances). */
ssize_t fring_write_data_to_fd(fring_req_t *req, size_t data_off, int fd,
			       off_t off, size_t len);
/** Bytes [data_off, data_off + len) of a WRITE's data into dst. */
ssize_t fring_write_data_copy(fring_req_t *req, size_t data_off, void *dst,
			      size_t len);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Asynchronous I/O on the queue's ring
 * On the ring transports a handler may issue its own io_uring operations
 * (backing-store reads, writes, fsync, statx, ...) on the ring of the queue
 * it runs on, so they share one io_uring_enter with the FUSE traffic.
 */
/**@{*/
struct io_uring_sqe;
/** Runs on the queue thread when the operation completes; res is the CQE's
 * result. The callback answers the request (or issues more I/O).
 * @param req  the request given to fring_io_submit()
 * @param res  the CQE's res: a count, or a negative errno
 * @param data the data given to fring_io_submit() */
typedef void (*fring_io_cb)(fring_req_t *req, int res, void *data);
/**
 * An SQE of the ring serving req, to be prepared with liburing's
 * io_uring_prep_*() and passed to fring_io_submit(). NULL when the
 * transport has no ring (dev) or when not called on req's queue thread:
 * then do the I/O synchronously or on a thread of your own.
 *
 * Transports: uring, bufpool, bufpool-registered, zerocopy.
 */
struct io_uring_sqe *fring_io_sqe(fring_req_t *req);
/**
 * Submits sqe (from fring_io_sqe(), prepared; its user_data is the
 * library's) with the batch of the queue thread's next io_uring_enter.
 * The request becomes asynchronous (see fring_req_async()). Returns 0 or
 * -ENOMEM (then sqe is turned into a no-op and nothing is called).
 *
 * Queue thread of req only: -EINVAL elsewhere, or when sqe is NULL.
 */
int fring_io_submit(fring_req_t *req, struct io_uring_sqe *sqe, fring_io_cb cb,
		    void *data);
/**@}*/

#endif
