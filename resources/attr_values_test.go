package resources

import (
	"reflect"
	"testing"
)

func TestSortedUnion(t *testing.T) {
	if got := SortedUnion([]string{"b", "a", "b"}, []string{"c", "a"}); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("union = %q", got)
	}
	if got := SortedUnion(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("empty union = %#v, want an empty list (recorded as [], not null)", got)
	}
}
