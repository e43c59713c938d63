# librdkafka's ACL admin API (CreateAcls, DescribeAcls, DeleteAcls: librdkafka 1.9+) called
# through ctypes. confluent-kafka-python wraps these calls only from 1.9.0 on; the installed
# binding (1.7.0) runs on librdkafka 2.0.2, which has them, so this module calls the very
# librdkafka the binding loaded: the requests on the wire are librdkafka's own.
import ctypes
from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_void_p

import confluent_kafka  # brings librdkafka into this process, for _loaded_librdkafka()

RESOURCE_ANY, RESOURCE_TOPIC = 1, 2
PATTERN_ANY, PATTERN_LITERAL = 1, 3
OPERATION_ANY, OPERATION_READ = 1, 3
PERMISSION_ANY, PERMISSION_ALLOW = 1, 3
_CREATE, _DESCRIBE, _DELETE = 0x400, 0x800, 0x1000


def _loaded_librdkafka():
    """The path of the librdkafka shared object confluent_kafka brought into this process."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/librdkafka.so" in path:
                return path
    raise RuntimeError("confluent_kafka did not load librdkafka")


_lib = ctypes.CDLL(_loaded_librdkafka())


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_conf_new = _fn("rd_kafka_conf_new", c_void_p)
_conf_set = _fn("rd_kafka_conf_set", c_int, c_void_p, c_char_p, c_char_p, c_char_p, c_size_t)
_new = _fn("rd_kafka_new", c_void_p, c_int, c_void_p, c_char_p, c_size_t)
_destroy = _fn("rd_kafka_destroy", None, c_void_p)
_queue_new = _fn("rd_kafka_queue_new", c_void_p, c_void_p)
_queue_destroy = _fn("rd_kafka_queue_destroy", None, c_void_p)
_queue_poll = _fn("rd_kafka_queue_poll", c_void_p, c_void_p, c_int)
_event_type = _fn("rd_kafka_event_type", c_int, c_void_p)
_event_error = _fn("rd_kafka_event_error", c_int, c_void_p)
_event_error_string = _fn("rd_kafka_event_error_string", c_char_p, c_void_p)
_event_destroy = _fn("rd_kafka_event_destroy", None, c_void_p)
_error_code = _fn("rd_kafka_error_code", c_int, c_void_p)
_binding_new = _fn("rd_kafka_AclBinding_new", c_void_p,
                   c_int, c_char_p, c_int, c_char_p, c_char_p, c_int, c_int, c_char_p, c_size_t)
_filter_new = _fn("rd_kafka_AclBindingFilter_new", c_void_p,
                  c_int, c_char_p, c_int, c_char_p, c_char_p, c_int, c_int, c_char_p, c_size_t)
_binding_destroy = _fn("rd_kafka_AclBinding_destroy", None, c_void_p)
_create_acls = _fn("rd_kafka_CreateAcls", None, c_void_p, POINTER(c_void_p), c_size_t, c_void_p, c_void_p)
_describe_acls = _fn("rd_kafka_DescribeAcls", None, c_void_p, c_void_p, c_void_p, c_void_p)
_delete_acls = _fn("rd_kafka_DeleteAcls", None, c_void_p, POINTER(c_void_p), c_size_t, c_void_p, c_void_p)
_create_result = _fn("rd_kafka_event_CreateAcls_result", c_void_p, c_void_p)
_describe_result = _fn("rd_kafka_event_DescribeAcls_result", c_void_p, c_void_p)
_delete_result = _fn("rd_kafka_event_DeleteAcls_result", c_void_p, c_void_p)
_create_result_acls = _fn("rd_kafka_CreateAcls_result_acls", POINTER(c_void_p), c_void_p, POINTER(c_size_t))
_acl_result_error = _fn("rd_kafka_acl_result_error", c_void_p, c_void_p)
_describe_result_acls = _fn("rd_kafka_DescribeAcls_result_acls", POINTER(c_void_p), c_void_p, POINTER(c_size_t))
_delete_responses = _fn("rd_kafka_DeleteAcls_result_responses", POINTER(c_void_p), c_void_p, POINTER(c_size_t))
_delete_response_error = _fn("rd_kafka_DeleteAcls_result_response_error", c_void_p, c_void_p)
_delete_matching = _fn("rd_kafka_DeleteAcls_result_response_matching_acls",
                       POINTER(c_void_p), c_void_p, POINTER(c_size_t))
_restype_name = _fn("rd_kafka_ResourceType_name", c_char_p, c_int)
_pattern_name = _fn("rd_kafka_ResourcePatternType_name", c_char_p, c_int)
_operation_name = _fn("rd_kafka_AclOperation_name", c_char_p, c_int)
_permission_name = _fn("rd_kafka_AclPermissionType_name", c_char_p, c_int)
_b_restype = _fn("rd_kafka_AclBinding_restype", c_int, c_void_p)
_b_name = _fn("rd_kafka_AclBinding_name", c_char_p, c_void_p)
_b_pattern = _fn("rd_kafka_AclBinding_resource_pattern_type", c_int, c_void_p)
_b_principal = _fn("rd_kafka_AclBinding_principal", c_char_p, c_void_p)
_b_host = _fn("rd_kafka_AclBinding_host", c_char_p, c_void_p)
_b_operation = _fn("rd_kafka_AclBinding_operation", c_int, c_void_p)
_b_permission = _fn("rd_kafka_AclBinding_permission_type", c_int, c_void_p)

TIMEOUT_MS = 30_000


def _text(b):
    return None if b is None else b.decode()


def _binding_row(b):
    """An ACL binding as [resource type, name, pattern type, principal, host, operation, permission]."""
    return [
        _text(_restype_name(_b_restype(b))), _text(_b_name(b)), _text(_pattern_name(_b_pattern(b))),
        _text(_b_principal(b)), _text(_b_host(b)), _text(_operation_name(_b_operation(b))),
        _text(_permission_name(_b_permission(b))),
    ]


def _array(ptr, count):
    return [ptr[i] for i in range(count.value)]


class AclAdmin:
    """A librdkafka producer handle (admin requests need no more) and a queue for the results."""

    def __init__(self, conf):
        c = _conf_new()
        err = ctypes.create_string_buffer(512)
        for k, v in conf.items():
            if _conf_set(c, k.encode(), str(v).encode(), err, len(err)) != 0:
                raise RuntimeError(err.value.decode())
        self._rk = _new(0, c, err, len(err))
        if not self._rk:
            raise RuntimeError(err.value.decode())
        self._q = _queue_new(self._rk)

    def close(self):
        _queue_destroy(self._q)
        _destroy(self._rk)

    def _wait(self, kind):
        ev = _queue_poll(self._q, TIMEOUT_MS)
        if not ev:
            raise TimeoutError("timed out waiting for the admin result")
        if _event_type(ev) != kind:
            _event_destroy(ev)
            raise RuntimeError("unexpected event type")
        return ev

    def _binding(self, new, restype, name, pattern, principal, host, operation, permission):
        err = ctypes.create_string_buffer(512)
        b = new(restype, name and name.encode(), pattern, principal and principal.encode(),
                host and host.encode(), operation, permission, err, len(err))
        if not b:
            raise RuntimeError(err.value.decode())
        return b

    def _call(self, new, fields, start, kind, read):
        """Builds a binding (or filter) of `fields` with `new`, sends it with `start`, waits for
        the `kind` result and reads it with `read`: [error code, what `read` found]."""
        b = self._binding(new, *fields)
        try:
            start(b)
            ev = self._wait(kind)
        finally:
            _binding_destroy(b)
        try:
            return [_event_error(ev), []] if _event_error(ev) != 0 else read(ev)
        finally:
            _event_destroy(ev)

    def create(self, *binding):
        """CreateAcls of one binding: the error code of its result (0: created)."""

        def read(ev):
            n = c_size_t()
            e = _acl_result_error(_array(_create_result_acls(_create_result(ev), byref(n)), n)[0])
            return [_error_code(e) if e else 0, []]

        def start(b):
            _create_acls(self._rk, (c_void_p * 1)(b), 1, None, self._q)

        return self._call(_binding_new, binding, start, _CREATE, read)[0]

    def describe(self, *filter_):
        """DescribeAcls: [error code, the matching bindings as rows]."""

        def read(ev):
            n = c_size_t()
            return [0, [_binding_row(b) for b in _array(_describe_result_acls(_describe_result(ev), byref(n)), n)]]

        def start(f):
            _describe_acls(self._rk, f, None, self._q)

        return self._call(_filter_new, filter_, start, _DESCRIBE, read)

    def delete(self, *filter_):
        """DeleteAcls of one filter: [error code, the deleted bindings as rows]."""

        def read(ev):
            n = c_size_t()
            response = _array(_delete_responses(_delete_result(ev), byref(n)), n)[0]
            e = _delete_response_error(response)
            if e:
                return [_error_code(e), []]
            m = c_size_t()
            return [0, [_binding_row(b) for b in _array(_delete_matching(response, byref(m)), m)]]

        def start(f):
            _delete_acls(self._rk, (c_void_p * 1)(f), 1, None, self._q)

        return self._call(_filter_new, filter_, start, _DELETE, read)
