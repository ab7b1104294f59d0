/*
 * attributes: attributes on communicators and datatypes, the MPI-1 keyval
 * calls, and error classes, codes and strings the program adds (issue 29).
 *
 *   attributes   (any number of ranks)
 */
#include "mpitest.h"

static int copies, deletes;

static int copy_plus_one(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  copies++;
  *(MPI_Aint*)out = (MPI_Aint)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int keyval, void* value, void* extra) {
  (void)c;
  (void)keyval;
  (void)value;
  (void)extra;
  deletes++;
  return MPI_SUCCESS;
}

static void type_attributes(void) {
  int keyval, flag = 0;
  void* value = NULL;
  MPI_Datatype vec, dup;
  CHECK_RC(MPI_Type_create_keyval(copy_plus_one, count_delete, &keyval, NULL));
  CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
  CHECK_RC(MPI_Type_get_attr(vec, keyval, &value, &flag));
  CHECK(flag == 0, "a new type has an attribute");
  CHECK_RC(MPI_Type_set_attr(vec, keyval, (void*)(MPI_Aint)41));
  CHECK_RC(MPI_Type_get_attr(vec, keyval, &value, &flag));
  CHECK(flag == 1 && (MPI_Aint)value == 41, "MPI_Type_get_attr gave %d, %ld", flag, (long)(MPI_Aint)value);
  CHECK_RC(MPI_Type_dup(vec, &dup));
  CHECK(copies == 1, "MPI_Type_dup ran %d copy callbacks", copies);
  CHECK_RC(MPI_Type_get_attr(dup, keyval, &value, &flag));
  CHECK(flag == 1 && (MPI_Aint)value == 42, "the duplicate's attribute is %ld", (long)(MPI_Aint)value);
  /* Setting again deletes the old value first; deleting runs the callback. */
  CHECK_RC(MPI_Type_set_attr(dup, keyval, (void*)(MPI_Aint)7));
  CHECK(deletes == 1, "replacing a value ran %d delete callbacks", deletes);
  CHECK_RC(MPI_Type_delete_attr(dup, keyval));
  CHECK(deletes == 2, "MPI_Type_delete_attr ran %d delete callbacks in all", deletes);
  CHECK_RC(MPI_Type_free(&dup));
  CHECK_RC(MPI_Type_free(&vec)); /* its value's delete callback runs here */
  CHECK(deletes == 3, "MPI_Type_free ran %d delete callbacks in all", deletes);
  /* Predefined types take attributes too. */
  CHECK_RC(MPI_Type_set_attr(MPI_INT, keyval, (void*)(MPI_Aint)5));
  CHECK_RC(MPI_Type_get_attr(MPI_INT, keyval, &value, &flag));
  CHECK(flag == 1 && (MPI_Aint)value == 5, "MPI_INT's attribute is %ld", (long)(MPI_Aint)value);
  CHECK_RC(MPI_Type_delete_attr(MPI_INT, keyval));
  /* A datatype keyval on a communicator is an error. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, NULL), MPI_ERR_KEYVAL);
  CHECK_RC(MPI_Type_free_keyval(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval left the keyval");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static int g_own_frees = 0;
static int free_own_keyval(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)value;
  (void)extra;
  ++g_own_frees;
  return MPI_Keyval_free(&keyval);
}

static void mpi1_keyvals(void) {
  int keyval, flag = 0;
  void* value = NULL;
  MPI_Comm dup;
  CHECK_RC(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &keyval, NULL));
  CHECK_RC(MPI_Attr_put(MPI_COMM_WORLD, keyval, (void*)(MPI_Aint)99));
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_RC(MPI_Attr_get(dup, keyval, &value, &flag));
  CHECK(flag == 1 && (MPI_Aint)value == 99, "MPI_DUP_FN copied %ld", (long)(MPI_Aint)value);
  CHECK_RC(MPI_Attr_delete(dup, keyval));
  CHECK_RC(MPI_Attr_get(dup, keyval, &value, &flag));
  CHECK(flag == 0, "MPI_Attr_delete left the attribute");
  /* A freed keyval: values already set stay readable, new ones are refused. */
  CHECK_RC(MPI_Keyval_free(&keyval));
  int freed = 0;
  CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &freed, NULL));
  CHECK_RC(MPI_Attr_put(dup, freed, (void*)(MPI_Aint)3));
  const int kept = freed;
  CHECK_RC(MPI_Keyval_free(&freed));
  CHECK_RC(MPI_Attr_get(dup, kept, &value, &flag));
  CHECK(flag == 1 && (MPI_Aint)value == 3, "a freed keyval's value is gone");
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Attr_put(dup, kept, NULL), MPI_ERR_KEYVAL);
  CHECK_RC(MPI_Comm_free(&dup));
  /* A keyval freed while values remain may be freed again (its delete
   * callback often does it): no error until no value is left. */
  int twice, copy;
  MPI_Comm other;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &other));
  CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &twice, NULL));
  copy = twice;
  CHECK_RC(MPI_Attr_put(other, twice, NULL));
  CHECK_RC(MPI_Keyval_free(&twice));
  CHECK_RC(MPI_Keyval_free(&copy));
  CHECK_RC(MPI_Comm_free(&other));
  /* A delete callback that frees its keyval, after the program freed it
   * twice: at the dup's free, and again at MPI_Finalize for the value on
   * MPI_COMM_SELF (MPICH's keyval_double_free). */
  int selfish, selfish_copy;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &other));
  CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, free_own_keyval, &selfish, NULL));
  selfish_copy = selfish;
  CHECK_RC(MPI_Attr_put(MPI_COMM_SELF, selfish, NULL));
  CHECK_RC(MPI_Attr_put(other, selfish, NULL));
  CHECK_RC(MPI_Comm_free(&other));
  CHECK(g_own_frees == 1, "the delete callback ran %d times at the dup's free", g_own_frees);
  CHECK_RC(MPI_Keyval_free(&selfish));
  CHECK_RC(MPI_Keyval_free(&selfish_copy));
}

static void error_classes(void) {
  int lastused = 0, flag = 0, *attr = NULL;
  CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &flag));
  CHECK(flag == 1 && *attr >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE is %d", flag ? *attr : -1);
  int cls, code1, code2, got;
  CHECK_RC(MPI_Add_error_class(&cls));
  CHECK(cls > MPI_ERR_LASTCODE, "a new class %d is not above MPI_ERR_LASTCODE", cls);
  CHECK_RC(MPI_Add_error_code(cls, &code1));
  CHECK_RC(MPI_Add_error_code(MPI_ERR_ARG, &code2));
  CHECK(code1 != code2 && code1 > cls && code2 > code1, "codes %d %d after class %d", code1, code2, cls);
  CHECK_RC(MPI_Error_class(code1, &got));
  CHECK(got == cls, "MPI_Error_class(%d) is %d, expected %d", code1, got, cls);
  CHECK_RC(MPI_Error_class(code2, &got));
  CHECK(got == MPI_ERR_ARG, "MPI_Error_class(%d) is %d, expected MPI_ERR_ARG", code2, got);
  CHECK_RC(MPI_Error_class(cls, &got));
  CHECK(got == cls, "a new class is not its own class");
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  CHECK_RC(MPI_Error_string(code1, text, &len));
  CHECK(len == 0, "a code without a string gave '%s'", text);
  CHECK_RC(MPI_Add_error_string(code1, "the frobnicator jammed"));
  CHECK_RC(MPI_Error_string(code1, text, &len));
  CHECK(strcmp(text, "the frobnicator jammed") == 0 && len == 22, "MPI_Error_string gave '%s'", text);
  CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &flag));
  lastused = *attr;
  CHECK(lastused == code2, "MPI_LASTUSEDCODE is %d, expected %d", lastused, code2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Add_error_string(MPI_ERR_TYPE, "mine now"), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Add_error_code(code1, &got), MPI_ERR_ARG); /* a code, not a class */
  /* A program's code goes through the error handler like any other. */
  CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code1) == MPI_SUCCESS, "MPI_Comm_call_errhandler failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  type_attributes();
  mpi1_keyvals();
  error_classes();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_RC(MPI_Finalize());
  if (g_own_frees != 2) {
    fprintf(stderr, "rank %d: FAIL: the keyval-freeing delete callback ran %d times, expected 2\n", rank, g_own_frees);
    return 1;
  }
  if (rank == 0) printf("attributes ok\n");
  return 0;
}
