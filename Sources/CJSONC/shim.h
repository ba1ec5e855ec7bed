#ifndef BEACONNET_CJSONC_SHIM_H
#define BEACONNET_CJSONC_SHIM_H
// json-c (apt: libjson-c-dev). pkg-config adds -I/usr/include/json-c, so the headers are reached
// by their own names.
#include <json.h>
#include <stdint.h>
#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Visit every key of a JSON object in insertion order. `json_object_object_foreach` is a macro
/// that does not import into Swift; this is its function form. Returns the number of keys visited;
/// the callback returns non-zero to stop early.
typedef int (*bn_json_key_visitor)(const char *key, struct json_object *value, void *context);
static inline int bn_json_object_foreach(struct json_object *obj, bn_json_key_visitor visit, void *context) {
    int count = 0;
    if (obj == NULL || !json_object_is_type(obj, json_type_object)) return 0;
    struct lh_entry *entry = json_object_get_object(obj)->head;
    while (entry != NULL) {
        count++;
        if (visit((const char *)lh_entry_k(entry), (struct json_object *)lh_entry_v(entry), context) != 0) break;
        entry = entry->next;
    }
    return count;
}

/// Number of keys in an object (0 for anything else).
static inline int bn_json_object_length(struct json_object *obj) {
    if (obj == NULL || !json_object_is_type(obj, json_type_object)) return 0;
    return json_object_object_length(obj);
}

/// Walking an object's members in insertion order without a callback, for decoders that read
/// every member once instead of looking each key up (`json_object_object_foreach` is a macro).
/// The first member, or NULL for an empty object or a non-object.
static inline struct lh_entry *bn_json_object_first(struct json_object *obj) {
    struct lh_table *table = json_object_get_object(obj);
    return table == NULL ? NULL : lh_table_head(table);
}
/// The member after `entry`, or NULL.
static inline struct lh_entry *bn_json_entry_next(const struct lh_entry *entry) { return lh_entry_next(entry); }
/// A member's key (NUL-terminated, owned by the object).
static inline const char *bn_json_entry_key(const struct lh_entry *entry) { return (const char *)lh_entry_k(entry); }
/// A member's value (NULL for JSON null), owned by the object.
static inline struct json_object *bn_json_entry_value(const struct lh_entry *entry) {
    return (struct json_object *)lh_entry_v(entry);
}
/// What one pass over a JSON text found, before it is parsed.
typedef struct {
    /// The members its objects declare: the colons outside strings, repeated keys included.
    size_t members;
    /// Non-zero when some byte is not ASCII (the text then needs a full UTF-8 check).
    unsigned high;
} bn_json_prescan_result;

/// The byte-at-a-time scan, carrying the string state across calls: for the bytes around an
/// escape, the tail, and machines without SSE2.
static inline void bn_json_prescan_bytes(const unsigned char *p, size_t n, size_t *members, unsigned *in_string,
                                         unsigned *escaped, unsigned *high) {
    for (size_t k = 0; k < n; k++) {
        unsigned char b = p[k];
        *high |= b & 0x80u;
        if (*escaped) {
            *escaped = 0;
        } else if (*in_string) {
            if (b == '\\') *escaped = 1;
            else if (b == '"') *in_string = 0;
        } else if (b == '"') {
            *in_string = 1;
        } else if (b == ':') {
            (*members)++;
        }
    }
}

#if defined(__SSE2__)
/// The bytes of a 64-byte block equal to `byte`, as a 64-bit mask (bit k: byte k).
static inline uint64_t bn_json_mask64(__m128i a, __m128i b, __m128i c, __m128i d, __m128i byte) {
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, byte))
        | ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, byte)) << 16)
        | ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, byte)) << 32)
        | ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(d, byte)) << 48);
}
#endif

/// Counts the members a JSON text declares and notes any non-ASCII byte, 64 bytes a step where
/// SSE2 is there. json-c keeps the last value of a repeated key without a word; comparing this
/// count with the members of the parsed tree (bn_json_tree_members) tells whether a key repeats,
/// for the price of one pass that also does the UTF-8 check's ASCII test (a small share of a
/// json-c parse: docs/MEASUREMENTS.md). A block holding a backslash (an escape) is walked
/// byte by byte; within strings only quotes and escapes matter.
static inline bn_json_prescan_result bn_json_prescan(const unsigned char *p, size_t n) {
    size_t members = 0;
    unsigned in_string = 0, escaped = 0, high = 0;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), colon = _mm_set1_epi8(':'), backslash = _mm_set1_epi8('\\');
    for (; i + 64 <= n; i += 64) {
        const __m128i *block = (const __m128i *)(const void *)(p + i);
        __m128i a = _mm_loadu_si128(block), b = _mm_loadu_si128(block + 1);
        __m128i c = _mm_loadu_si128(block + 2), d = _mm_loadu_si128(block + 3);
        high |= (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
        __m128i escapes = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, backslash), _mm_cmpeq_epi8(b, backslash)),
                                       _mm_or_si128(_mm_cmpeq_epi8(c, backslash), _mm_cmpeq_epi8(d, backslash)));
        if (__builtin_expect(((unsigned)_mm_movemask_epi8(escapes) | escaped) != 0, 0)) {
            unsigned ignored = 0;
            bn_json_prescan_bytes(p + i, 64, &members, &in_string, &escaped, &ignored);
            continue;
        }
        uint64_t quotes = bn_json_mask64(a, b, c, d, quote), colons = bn_json_mask64(a, b, c, d, colon);
        // Bit k: an odd number of quotes at or before byte k, i.e. byte k is inside a string
        // opened in this block; flipped when the block starts inside one.
        uint64_t inside = quotes;
        inside ^= inside << 1;
        inside ^= inside << 2;
        inside ^= inside << 4;
        inside ^= inside << 8;
        inside ^= inside << 16;
        inside ^= inside << 32;
        inside ^= 0ull - (uint64_t)in_string;
        members += (size_t)__builtin_popcountll(colons & ~inside);
        in_string = (unsigned)(inside >> 63);
    }
#endif
    bn_json_prescan_bytes(p + i, n - i, &members, &in_string, &escaped, &high);
    bn_json_prescan_result result = { members, high };
    return result;
}

/// The members of every object of a parsed tree: what its text declared, less one for each
/// repeated key json-c folded into its last value.
static inline size_t bn_json_tree_members(struct json_object *value) {
    if (value == NULL) return 0;
    switch (json_object_get_type(value)) {
    case json_type_object: {
        size_t total = (size_t)json_object_object_length(value);
        for (struct lh_entry *entry = json_object_get_object(value)->head; entry != NULL; entry = entry->next) {
            total += bn_json_tree_members((struct json_object *)lh_entry_v(entry));
        }
        return total;
    }
    case json_type_array: {
        size_t count = json_object_array_length(value), total = 0;
        for (size_t index = 0; index < count; index++) total += bn_json_tree_members(json_object_array_get_idx(value, index));
        return total;
    }
    default:
        return 0;
    }
}
#endif

