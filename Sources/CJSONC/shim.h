#ifndef BEACONNET_CJSONC_SHIM_H
#define BEACONNET_CJSONC_SHIM_H
// json-c (apt: libjson-c-dev). pkg-config adds -I/usr/include/json-c, so the headers are reached
// by their own names.
#include <json.h>
#include <stdint.h>
#include <stddef.h>

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
#endif
