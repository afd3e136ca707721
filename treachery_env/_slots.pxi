# Shared by the compiled modules (``include "_slots.pxi"`` in _observation.pyx
# and _view.pyx; each module gets its own copy of this state).  An edit here
# makes both compiled modules stale (treachery_env.compiled.is_stale).
#
# ---- direct reads of the engine's __slots__ attributes
#
# The state classes of engine/state.py are C types when compiled (state.pxd): the
# modules cimport them and read their fields directly.  What is still a plain class
# with __slots__ (the talk state, engine/talk.py's TalkState) is read here: the
# member descriptor on the class says at which offset of the instance each value
# lies.  ``get(obj, A)`` reads attribute A there when
# ``obj``'s type is exactly the class A was located in -- what CPython's own
# inline cache does for ``LOAD_ATTR`` on a slot -- and otherwise (a subclass,
# another type, an unset slot) calls ``getattr``, so the value is always
# getattr's.  A class changed after import (its version tag moved: an attribute
# was set on it or on a base) has its attributes located again at the next call.

cdef extern from *:
    """
    #include "structmember.h"
    enum { TREACHERY_MAX_ATTRS = 128 };
    typedef struct {
        PyTypeObject *tp;     /* read instances of exactly this class at offset (NULL: by getattr) */
        Py_ssize_t offset;
        PyObject *name;       /* borrowed from _attr_keys */
    } treachery_attr;
    static treachery_attr treachery_attrs[TREACHERY_MAX_ATTRS];

    /* Offset of a plain object slot in instances of cls (a T_OBJECT_EX member
       descriptor, found on cls or a base), or -1 when getattr must be used. */
    static Py_ssize_t treachery_slot_offset(PyObject *cls, PyObject *descr) {
        PyMemberDef *m;
        if (((PyTypeObject *)cls)->tp_getattro != PyObject_GenericGetAttr) return -1;
        if (Py_TYPE(descr) != &PyMemberDescr_Type) return -1;
        m = ((PyMemberDescrObject *)descr)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & ~READONLY)) return -1;
        return m->offset;
    }

    static unsigned int treachery_version_tag(PyTypeObject *cls) {
        return cls->tp_version_tag;
    }

    /* getattr(o, name of attribute a): a new reference, or NULL with an exception set */
    #if defined(__GNUC__)
    __attribute__((always_inline))
    #endif
    static inline PyObject *treachery_get(PyObject *o, Py_ssize_t a) {
        treachery_attr *at = &treachery_attrs[a];
        if (Py_TYPE(o) == at->tp) {
            PyObject *v = *(PyObject **)((char *)o + at->offset);
            if (v != NULL) {
                Py_INCREF(v);
                return v;
            }
        }
        return PyObject_GetAttr(o, at->name);
    }
    """
    enum:
        TREACHERY_MAX_ATTRS
    ctypedef struct treachery_attr:
        PyTypeObject* tp
        Py_ssize_t offset
        PyObject* name
    treachery_attr treachery_attrs[TREACHERY_MAX_ATTRS]
    Py_ssize_t treachery_slot_offset(object cls, object descr)
    unsigned int treachery_version_tag(PyTypeObject* cls)
    object get "treachery_get" (object o, Py_ssize_t a)

cdef enum:
    MAX_CLASSES = 8

cdef list _attr_keys = []             # (class, name) of each attribute id (keeps the names alive)
cdef PyTypeObject* _classes[MAX_CLASSES]
cdef unsigned int _tags[MAX_CLASSES]  # version tag of each class when its attributes were located
cdef Py_ssize_t _n_classes = 0
cdef list _class_list = []            # the classes, kept alive


cdef int _locate(Py_ssize_t a) except -1:
    """Find where attribute ``a`` lies in instances of its class."""
    cls, name = _attr_keys[a]
    treachery_attrs[a].tp = NULL
    treachery_attrs[a].name = <PyObject*>name
    for k in cls.__mro__:
        if name in k.__dict__:
            off = treachery_slot_offset(cls, k.__dict__[name])
            if off >= 0:
                treachery_attrs[a].offset = off
                treachery_attrs[a].tp = <PyTypeObject*>cls
            return 0
    return 0


cdef int _locate_class(Py_ssize_t i) except -1:
    """Locate every attribute of class ``i`` and note its version tag."""
    cls = _class_list[i]
    for a in range(len(_attr_keys)):
        if _attr_keys[a][0] is cls:
            _locate(a)
            getattr(cls, _attr_keys[a][1])      # a type lookup: gives the class a version tag
    _tags[i] = treachery_version_tag(<PyTypeObject*>cls)
    return 0


cdef Py_ssize_t _attr(type cls, str name) except -1:
    """A new attribute id for ``cls.name`` (see :func:`get`)."""
    global _n_classes
    cdef Py_ssize_t a = len(_attr_keys)
    if a >= TREACHERY_MAX_ATTRS:
        raise RuntimeError(f"{__name__}: raise TREACHERY_MAX_ATTRS")
    _attr_keys.append((cls, name))
    if cls not in _class_list:
        if _n_classes >= MAX_CLASSES:
            raise RuntimeError(f"{__name__}: raise MAX_CLASSES")
        _class_list.append(cls)
        _classes[_n_classes] = <PyTypeObject*>cls
        _n_classes += 1
    _locate_class(_class_list.index(cls))
    return a


cdef inline int _check_classes() except -1:
    """Locate again the attributes of the classes changed since they were located."""
    cdef Py_ssize_t i
    for i in range(_n_classes):
        if _tags[i] == 0 or treachery_version_tag(_classes[i]) != _tags[i]:
            _locate_class(i)
    return 0


def slot_reads():
    """Which engine attributes this module reads straight from their slot.

    Returns:
        ``{"Class.attribute": bool}``: True where instances of exactly that
        class are read at the slot's offset, False where ``getattr`` is used
        (the attribute is no plain ``__slots__`` member, or the class has its
        own attribute lookup).  Classes changed since the last call are
        looked at again first.
    """
    _check_classes()
    return {f"{cls.__name__}.{name}": treachery_attrs[a].tp != NULL for a, (cls, name) in enumerate(_attr_keys)}
